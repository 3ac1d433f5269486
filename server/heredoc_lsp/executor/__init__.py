"""The sandboxed executor: runs `.cli` scripts and applies inbox replies, emitting run events (SPEC §6, §7).

(The public API is documented here once the run layer lands.)
"""
