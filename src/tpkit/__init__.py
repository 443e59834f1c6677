"""tpkit: the memory and communication core of tensor-parallel LLM serving.

The planner path (``units``, ``hardware``, ``models``, ``engines``, ``memory``, ``cli plan``)
never imports torch; see ``src/tpkit/README.md`` for the layer map.
"""

__version__ = "0.1.0"
