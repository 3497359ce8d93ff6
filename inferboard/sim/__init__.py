"""The simulator: a design compiled into a queueing network, solved analytically (steady state),
over time (timeline with autoscaling and faults), and request by request (load test).

Its packages, each over the ones below it: ``timeline``, ``loadtest`` and ``quality`` (the design
over time, request by request, and its model quality); ``steady`` (the steady state); ``explain``
(how figures are explained); ``design`` (the compiled design); ``llm`` and ``batching`` (pool
models); ``queues`` (single-queue mathematics). ``cli`` is ``inferboard simulate``."""
