"""The library's entry points, shared by the command line and notebooks."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from reconcile.config import SYSTEM_TEMP, EngineConfig, refuse_inside
from reconcile.db import Engine
from reconcile.errors import InvalidLogSet, UsageError, query_interrupted
from reconcile.logset.coordinate import coordinate_columns, infer_coordinate
from reconcile.logset.file_schemas import FileSchema, read_file_schemas
from reconcile.logset.load import LogSet, file_stamps
from reconcile.mapping import LogMapping
from reconcile.mapping.discover import discover_with_mapping
from reconcile.validate import validate_files


def open_logset(
    path: str | Path,
    *,
    config: EngineConfig | None = None,
    validate: bool = True,
    mapping: LogMapping | str | Path | None = None,
) -> LogSet:
    """Open a log set for the engine and for notebooks.

    With ``validate`` (the default) the log set is first checked against the
    contract, and :class:`~reconcile.errors.InvalidLogSet` raised with the full
    report when it breaks it; without, it is only read, and queries may fail on bad
    input. ``mapping`` (an object, a file, ``"auto"`` for the log directory's own
    ``reconcile.toml``, or ``"none"``) reads the user's own layout as the contract's
    tables, as views over their files; a log directory's own mapping is never
    applied unasked: without ``mapping`` a log set that holds one is refused.
    The engine's spill folder (``config.temp_directory``, else
    ``RECONCILE_TEMP_DIR``) inside the log set is refused: a log set is never
    written into.
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise UsageError(
            f"open_logset: give the log set's folder as text or a Path, not {type(path).__name__}"
        )
    if config is not None and not isinstance(config, EngineConfig):
        raise UsageError(
            f"open_logset: config is an EngineConfig (EngineConfig(threads=2)), not"
            f" {type(config).__name__}"
        )
    # the spill folder is made under temp_directory: never inside the log set
    engine_config = config if config is not None else EngineConfig.from_env()
    if engine_config.temp_directory is not None:
        given = "EngineConfig temp_directory" if config is not None else "RECONCILE_TEMP_DIR"
        refuse_inside(given, engine_config.temp_directory, {"the log set": path})
    else:
        refuse_inside(SYSTEM_TEMP, tempfile.gettempdir(), {"the log set": path})
    files = discover_with_mapping(path, mapping)
    stamps = file_stamps(files)  # before validation reads them
    if validate:
        try:
            report = validate_files(files, config=engine_config)
        except Exception as error:
            if query_interrupted(error):  # Ctrl-C, in DuckDB's words
                raise KeyboardInterrupt from error
            raise
        if not report.ok:
            raise InvalidLogSet(report)
    schemas: dict[str, list[FileSchema]] = {}
    for name, table in files.tables.items():
        schemas[name], _ = read_file_schemas(files, table)
    coordinate = infer_coordinate(coordinate_columns(schemas))
    logset = LogSet(
        files, schemas, coordinate, Engine(engine_config, readable=files.all_files), stamps=stamps
    )
    try:
        logset.check_unchanged()  # nothing was rewritten while it was validated
    except BaseException:
        logset.close()
        raise
    return logset
