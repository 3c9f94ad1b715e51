SELECT CASE WHEN c > 0 THEN 'pos' WHEN c < 0 THEN 'neg' ELSE NULL END, COALESCE(b, 'none'), NULLIF(h, 1) FROM t;
SELECT CAST(c AS INTEGER), CAST('2021-02-03' AS TIMESTAMP), CAST(g AS TEXT), f / 3, g % 5, -h FROM t;
SELECT substr(b, 2, 3), upper(e), lower(i), length(b), trim(e), abs(c) FROM t;
