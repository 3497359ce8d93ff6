"""LLM generation pools: prefill from FLOPs, decode from HBM bytes, the running batch from
Little's law, time to first token as a distribution; and the same model read tick by tick.
"""
