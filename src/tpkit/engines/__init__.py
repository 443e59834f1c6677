"""Engine memory policies, one folder each (pure): ``sglang/``, ``vllm/``.

Each folder's ``engine.py`` defines ``ENGINE`` (``tpkit.engines.engine.Engine``: options + plan);
``tpkit.engines.registry`` finds them.  Start-up costs come from ``tpkit.startup``.
"""
