SELECT -a * (b + 3) / 2 % 5 - +1, 1e10, .5, 'it''s', "Quoted Col" FROM t
