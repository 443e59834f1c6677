"""Runtime layer: probes, process groups, KV pool allocation (torch)."""
