package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func TestQueries(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	cases := []struct {
		sql  string
		want string // rows joined by "; "
	}{
		// SELECT without FROM
		{"SELECT 1", "1"},
		{"select 1 + 2 * 3, 7 / 2, 7 % 3, -(4), 'x'", "7|3.5|1|-4|x"},
		{"SELECT NULL IS NULL, 1 = NULL, TRUE AND NULL, FALSE AND NULL, TRUE OR NULL", "true|NULL|NULL|false|true"},
		// filters
		{"SELECT id FROM orders WHERE price > 1 AND price <= 3", "1; 4; 5; 8"},
		{"SELECT id FROM orders WHERE name = 'apple' OR qty >= 30", "1; 5; 7; 8"},
		{"SELECT id FROM orders WHERE NOT (name = 'apple')", "2; 4; 6; 7"},
		{"SELECT id FROM orders WHERE name <> 'apple' AND name != 'banana'", "4; 6"},
		{"SELECT id FROM orders WHERE id IN (1, 3, 5, 99)", "1; 3; 5"},
		{"SELECT id FROM orders WHERE name NOT IN ('apple', 'banana')", "4; 6"},
		{"SELECT id FROM orders WHERE qty BETWEEN 8 AND 12", "1; 5; 8"},
		{"SELECT id FROM orders WHERE qty NOT BETWEEN 8 AND 12", "2; 4; 6; 7"},
		{"SELECT id FROM orders WHERE name LIKE 'b%'", "2; 7"},
		{"SELECT id FROM orders WHERE name LIKE '%an%'", "2; 6; 7"},
		{"SELECT id FROM orders WHERE name LIKE '_pple'", "1; 5; 8"},
		{"SELECT id FROM orders WHERE name NOT LIKE '%a%'", "4"},
		{"SELECT id FROM orders WHERE name IS NULL", "3"},
		{"SELECT COUNT(*) FROM orders WHERE name IS NOT NULL", "7"},
		{"SELECT id FROM orders WHERE dt >= DATE '2024-03-01'", "6; 7; 8"},
		{"SELECT id FROM orders WHERE dt < '2024-01-02'", "1"},
		{"SELECT id FROM orders WHERE ts > TIMESTAMP '2024-03-02 09:00:00'", "7; 8"},
		{"SELECT id FROM orders WHERE amount = 15", "1; 4"},
		{"SELECT id FROM orders WHERE amount > 14.5", "1; 4; 8"},
		{"SELECT id FROM orders WHERE price = 0.25", "2"},
		{"SELECT id FROM orders WHERE 1 = 0", ""},
		// projections and expressions
		{"SELECT id, qty * 2, price + 1, amount * 2 FROM orders WHERE id = 2", "2|40|1.25|10.00"},
		{"SELECT UPPER(name), LOWER(name), LENGTH(name), CONCAT(name, '-', id) FROM orders WHERE id IN (2, 6)", "BANANA|banana|6|banana-2; DURIAN|durian|6|Durian-6"},
		{"SELECT SUBSTRING(name, 2, 3), SUBSTRING(name FROM 3), LEFT(name, 2), RIGHT(name, 2) FROM orders WHERE id = 4", "her|erry|ch|ry"},
		{"SELECT CASE WHEN qty > 10 THEN 'big' WHEN qty > 5 THEN 'mid' ELSE 'small' END FROM orders WHERE id <= 4", "mid; big; small; small"},
		{"SELECT CASE name WHEN 'apple' THEN 1 ELSE 0 END FROM orders WHERE id <= 3", "1; 0; 0"},
		{"SELECT COALESCE(name, 'none'), COALESCE(qty, 0) FROM orders WHERE id = 3", "none|0"},
		{"SELECT IFNULL(price, -1), NULLIF(qty, 10) FROM orders WHERE id IN (1, 3)", "1.5|NULL; -1|NULL"},
		{"SELECT CAST(qty AS VARCHAR), CAST('12' AS BIGINT), CAST(price AS INTEGER), CAST(amount AS DOUBLE), CAST(1.25 AS DECIMAL(5,1)) FROM orders WHERE id = 1", "10|12|2|15|1.3"},
		{"SELECT CAST(dt AS VARCHAR), CAST('2024-05-06' AS DATE), CAST(dt AS TIMESTAMP) FROM orders WHERE id = 1", "2024-01-01|2024-05-06|2024-01-01 00:00:00"},
		{"SELECT EXTRACT(YEAR FROM dt), EXTRACT(MONTH FROM dt), EXTRACT(DAY FROM ts), YEAR(dt), MONTH(ts), DAY(dt), EXTRACT(HOUR FROM ts) FROM orders WHERE id = 4", "2024|2|10|2024|2|10|10"},
		{"SELECT DATE_TRUNC('month', dt), DATE_TRUNC('day', ts) FROM orders WHERE id = 5", "2024-02-01 00:00:00|2024-02-11 00:00:00"},
		{"SELECT id FROM orders WHERE UPPER(name) = 'APPLE' AND LENGTH(name) = 5", "1; 5; 8"},
		{"SELECT o.id FROM orders AS o WHERE o.qty = 5", "4"},
		{"SELECT id FROM sales.items WHERE id = 1", "1"},
		// ORDER BY / LIMIT / OFFSET / DISTINCT
		{"SELECT id FROM orders ORDER BY price DESC, id LIMIT 3", "6; 4; 5"},
		{"SELECT id, price FROM orders ORDER BY 2, 1", "2|0.25; 7|0.3; 1|1.5; 8|1.5; 5|1.75; 4|3; 6|9.5; 3|NULL"},
		{"SELECT id AS k FROM orders ORDER BY k DESC LIMIT 2 OFFSET 1", "7; 6"},
		{"SELECT id FROM orders ORDER BY qty * -1 LIMIT 2", "7; 2"},
		{"SELECT id FROM orders LIMIT 3", "1; 2; 3"},
		{"SELECT id FROM orders LIMIT 2, 3", "3; 4; 5"},
		{"SELECT id FROM orders LIMIT 0", ""},
		{"SELECT DISTINCT name FROM orders ORDER BY name", "Durian; apple; banana; cherry; NULL"},
		{"SELECT DISTINCT name, qty > 10 FROM orders WHERE name = 'apple' ORDER BY 2", "apple|false; apple|true"},
		// aggregates
		{"SELECT COUNT(*), COUNT(name), COUNT(DISTINCT name), SUM(qty), MIN(price), MAX(price), AVG(qty) FROM orders", "8|7|4|86|0.25|9.5|12.285714285714286"},
		{"SELECT SUM(amount), AVG(amount), MIN(dt), MAX(ts) FROM orders", "85.50|12.214285714285714|2024-01-01|2024-03-03 10:00:00"},
		{"SELECT name, COUNT(*) AS n, SUM(qty) FROM orders GROUP BY name ORDER BY n DESC, name", "apple|3|30; banana|2|50; Durian|1|1; cherry|1|5; NULL|1|NULL"},
		{"SELECT name, SUM(qty) FROM orders GROUP BY 1 HAVING SUM(qty) > 10 ORDER BY 1", "apple|30; banana|50"},
		{"SELECT name, COUNT(*) FROM orders GROUP BY name HAVING COUNT(*) > 1 ORDER BY COUNT(*)", "banana|2; apple|3"},
		{"SELECT EXTRACT(MONTH FROM dt) AS m, COUNT(*) FROM orders WHERE dt IS NOT NULL GROUP BY m ORDER BY m", "1|2; 2|2; 3|3"},
		{"SELECT COUNT(*) FROM orders WHERE id > 100", "0"},
		{"SELECT SUM(qty), MAX(name) FROM orders WHERE id > 100", "NULL|NULL"},
		{"SELECT name FROM orders WHERE id > 100 GROUP BY name", ""},
		{"SELECT COUNT(*) + 1, SUM(qty) / COUNT(qty) FROM orders", "9|12.285714285714286"},
		{"SELECT qty > 10 AS big, COUNT(*) FROM orders GROUP BY qty > 10 ORDER BY big", "false|4; true|3; NULL|1"},
		{"SELECT COUNT(DISTINCT name) FROM orders GROUP BY qty > 10 ORDER BY 1", "0; 2; 3"},
		// SHOW
		{"SHOW DATABASES", "default; sales"},
		{"SHOW TABLES", "orders|TABLE"},
		{"SHOW TABLES FROM sales", "items|TABLE"},
	}
	for _, c := range cases {
		rows, err := tryQuery(t, e, c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := strings.Join(rows, "; "); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.sql, got, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	cases := []struct {
		sql  string
		want string
		is   error
	}{
		{"SELECT * FROM ordres", `table "ordres" does not exist in database "default" (did you mean "orders"?)`, catalog.ErrNotFound},
		{"SELECT * FROM defualt.orders", `database "defualt" does not exist (did you mean "default"?)`, catalog.ErrNotFound},
		{"SELECT nme FROM orders", `column "nme" does not exist in default.orders (did you mean "name"?)`, catalog.ErrInvalid},
		{"SELECT zzzzzz FROM orders", `column "zzzzzz" does not exist in default.orders`, catalog.ErrInvalid},
		{"SELECT x.id FROM orders", `unknown table qualifier "x"`, catalog.ErrInvalid},
		{"SELEC 1", "syntax error at line 1, column 1 near 'SELEC'", catalog.ErrInvalid},
		{"SELECT a.id FROM orders a JOIN orders b ON a.id = b.id WHERE id = 1", `column reference "id" is ambiguous`, catalog.ErrInvalid},
		{"SELECT id FROM orders UNION SELECT id, name FROM orders", "each UNION query must have the same number of columns (1 vs 2)", catalog.ErrInvalid},
		{"SELECT id FROM orders WHERE id IN (SELECT id, name FROM orders)", "a subquery used with IN must return one column, not 2", catalog.ErrInvalid},
		{"SELECT name, COUNT(*) FROM orders", "column name must appear in the GROUP BY clause", catalog.ErrInvalid},
		{"SELECT id FROM orders WHERE COUNT(*) > 1", "aggregate COUNT is not allowed in WHERE", catalog.ErrInvalid},
		{"SELECT SUM(name) FROM orders", "SUM is not defined for", catalog.ErrInvalid},
		{"SELECT id FROM orders WHERE dt = 'yesterday'", `invalid DATE "yesterday"`, catalog.ErrInvalid},
		{"SELECT id FROM orders WHERE name", "WHERE needs a BOOLEAN condition, got VARCHAR (orders.name)", catalog.ErrInvalid},
		{"SELECT CAST(id AS BLOB) FROM orders", "cannot CAST orders.id of type BIGINT to BLOB", catalog.ErrInvalid},
		{"SELECT FOO(id) FROM orders", "unknown function FOO", catalog.ErrInvalid},
		{"SELECT id FROM orders ORDER BY 5", "ORDER BY position 5 is not in the select list", catalog.ErrInvalid},
		{"SELECT DISTINCT name FROM orders ORDER BY id", "for SELECT DISTINCT, ORDER BY expressions must appear in the select list", catalog.ErrInvalid},
		{"INSERT INTO orders VALUES (1)", "INSERT", catalog.ErrUnsupported},
		{"DELETE FROM orders WHERE id = 1", "DELETE on table default.orders (it does not support deletes)", catalog.ErrUnsupported},
		{"CALL sys.compact('default.orders')", "sys.compact on table default.orders (it does not support compaction)", catalog.ErrUnsupported},
		{"CALL sys.compact('default.ordrs')", `table "ordrs" does not exist in database "default" (did you mean "orders"?)`, catalog.ErrNotFound},
		{"CALL sys.rollback('x')", "procedure sys.rollback", catalog.ErrUnsupported},
		{"SHOW TABLES FROM nope", `database "nope" does not exist`, catalog.ErrNotFound},
		{"SELECT id FROM orders LIMIT -1", "LIMIT needs a non-negative integer, got -1", catalog.ErrInvalid},
	}
	for _, c := range cases {
		_, err := e.Prepare(context.Background(), c.sql, Session{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
			t.Errorf("%s\n got: %v\nwant: error containing %q wrapping %v", c.sql, err, c.want, c.is)
		}
	}
}
