SELECT CASE a WHEN 1 THEN 'one' END, coalesce(c, 'none'), CAST(b AS INTEGER) FROM t
