SELECT count(DISTINCT x), sum(y), min(y), max(y), avg(y) FROM s, t WHERE s.x = t.a
