-- Every key of every object of one JSON Lines file, as written (a mapping refuses a
-- file where two differ only by case, or one repeats within an object: DuckDB reads
-- them as one name). A key repeated within an object is listed twice. Only the
-- objects whose keys are not all distinct are searched for the repeated key.
SELECT DISTINCT unnest(list_filter(keys, lambda k: len(list_filter(keys, lambda j: j = k)) > 1))
FROM (
    SELECT json_keys(json) AS keys
    FROM read_json_objects($file, format = 'newline_delimited')
)
WHERE len(keys) <> len(list_distinct(keys))
UNION ALL
SELECT DISTINCT unnest(json_keys(json))
FROM read_json_objects($file, format = 'newline_delimited')
-- in one order every run, so that the problem a file is refused for is always the same
ORDER BY 1
