DELETE FROM t WHERE a = ? AND b <> ? OR c >= 'x'
