-- Every key of every object of one JSON Lines file, as written (a mapping refuses a
-- file where two differ only by case, or one repeats within an object: DuckDB reads
-- them as one name). An object's own repeated key is listed twice.
SELECT k
FROM (
    SELECT unnest(json_keys(json)) AS k, ordinality AS line
    FROM read_json_objects($file, format = 'newline_delimited') WITH ORDINALITY
)
GROUP BY k, line
HAVING count(*) > 1
UNION ALL
SELECT DISTINCT unnest(json_keys(json))
FROM read_json_objects($file, format = 'newline_delimited')
