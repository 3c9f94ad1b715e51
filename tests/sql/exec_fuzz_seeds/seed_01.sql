UPDATE t SET c = c * 2, b = b || '!' WHERE a > 1 RETURNING a, c, b;
DELETE FROM u WHERE k = 1 AND j = 2;
INSERT INTO u VALUES (4, 4, 'd') RETURNING *;
