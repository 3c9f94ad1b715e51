INSERT INTO t (a, b) VALUES (1, 2.50), (2, 3.25), (?, ?)
