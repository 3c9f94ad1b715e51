SELECT upper(c) || lower(d) || trim(e), substr(c, 1, 3), length(c) FROM t
