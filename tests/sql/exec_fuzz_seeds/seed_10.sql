SELECT a / (a - 1) FROM t ORDER BY a;
SELECT c / 0.0 FROM t WHERE a = 3;
