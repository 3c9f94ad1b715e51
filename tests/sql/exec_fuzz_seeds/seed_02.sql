BEGIN;
INSERT INTO t (a, b) VALUES (10, 'ten');
UPDATE t SET g = g + 1 WHERE b = 'ten';
SELECT * FROM t WHERE b LIKE 't%';
ROLLBACK;
