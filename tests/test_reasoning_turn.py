"""Which assistant messages belong to the tool-use turn a request continues — the ones whose
Anthropic thinking blocks must go back — read the way the API reads the request: consecutive user
and tool messages are one user turn, and a turn holding tool results continues the turn before."""

from __future__ import annotations

from agent_tui.base.reasoning import tool_turn
from agent_tui.llm.reasoning_params import continues_without_thinking


def turn(*roles: str) -> list[int]:
    return tool_turn(list(roles), lambda role: role)


class TestToolTurn:
    def test_a_new_prompt_starts_a_new_turn(self):
        """Nothing to send back when the last user turn holds no tool results."""
        assert turn("system", "user") == []
        assert turn("user", "assistant", "tool", "assistant", "user") == []

    def test_every_step_of_the_turn_in_progress(self):
        """Back through each assistant message answered by tool results, to the user's prompt."""
        assert turn("system", "user", "assistant", "tool", "tool", "assistant", "tool") == [2, 5]

    def test_results_merged_with_a_later_prompt_still_continue_the_turn(self):
        """A repaired or cancelled call's result, a note and a new prompt are one user turn for
        the API, so the turn is still in progress (the resumed-session case)."""
        assert turn("user", "assistant", "tool", "user", "user") == [1]

    def test_earlier_turns_are_not_part_of_it(self):
        """A tool-use turn that ended before the newest prompt is not sent back."""
        assert turn("user", "assistant", "tool", "assistant", "user", "assistant", "tool") == [5]


def wire(role: str, **extra) -> dict:
    return {"role": role, **extra}


class TestContinuesWithoutThinking:
    def test_judged_by_the_first_assistant_message_of_the_turn(self):
        """A later step without blocks is fine (the model thinks once per turn); a first
        step without them means thinking must stay off for the rest of the turn."""
        call = [{"id": "c"}]
        blocks = [{"type": "thinking", "thinking": "t", "signature": "s"}]
        thought = wire("assistant", tool_calls=call, thinking_blocks=blocks)
        plain = wire("assistant", tool_calls=call)
        assert not continues_without_thinking([wire("user"), thought, wire("tool"), plain, wire("tool")])
        assert continues_without_thinking([wire("user"), plain, wire("tool"), thought, wire("tool")])
        assert continues_without_thinking([wire("user"), plain, wire("tool"), wire("user")])
        assert not continues_without_thinking(
            [wire("user"), plain, wire("tool"), wire("assistant"), wire("user")]
        )
