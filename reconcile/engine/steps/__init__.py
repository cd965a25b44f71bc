"""The declarations of the engine's steps, one module per part of the contract.

Each module declares its steps (:mod:`reconcile.engine.declare`) and nothing else;
:mod:`reconcile.engine.registry` gathers them into the pipeline.
"""
