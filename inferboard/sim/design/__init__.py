"""A design compiled for the simulator: the rate-independent structure, the faults it can carry,
the hardware model of each pool, how traffic is split (routing), the compiled queueing network
every other package works on, and the batching tables an edit will likely need next.
"""
