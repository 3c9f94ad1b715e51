UPDATE t SET b = b + 1, c = CASE WHEN b > 10 THEN 'big' ELSE c END WHERE a = $2
