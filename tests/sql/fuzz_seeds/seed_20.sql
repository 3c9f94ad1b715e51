SELECT a FROM t WHERE a = 1 -- comment
 AND /* block /* nested */ */ b = 2
