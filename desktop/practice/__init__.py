"""The practice and mock-interview windows on top of ``inferboard.practice``: a solo round, a mock
interview on one machine or two, the attempt history. The entry points live in ``launch``."""

from desktop.practice.launch import (forget, host_interview, join_interview, open_history, open_mock_interview,
                                     open_practice)

__all__ = ["forget", "host_interview", "join_interview", "open_history", "open_mock_interview", "open_practice"]
