"""Remote mock interviews: the candidate's machine and the interviewer's, joined by a spoken code.

Floors, bottom up (an import-linter contract keeps them so):

- ``words``: join codes ("7-amber-falcon") and the six-digit verification string;
- ``channel``: length-prefixed frames with size caps, and ChaCha20-Poly1305 with sequence numbers;
- ``wire``: every message as a pydantic schema (unknown fields refused);
- ``handshake``: SPAKE2 keyed by the code, HKDF, key confirmation, resume with the session keys;
- ``session_log``: numbered messages kept until acknowledged, so a resumed connection loses nothing;
- ``peer``: the asyncio ends (``HostPeer`` listens, ``JoinPeer`` connects), each on its own thread;
- ``interview``: ``interview_link``'s transport over a peer, and the candidate-side guard;
- ``headless``: both ends from the command line, to check a path before an interview.

No Qt here: the desktop layer bridges a peer's callbacks to its main thread.
"""
