UPDATE s SET y = y * 1.1 WHERE x IN (1, 2, 3) AND y IS NULL
