"""The demo smart-home agent: a simulated home, a rule-based policy and a genuine tool-calling loop."""

from .agent import HomeAgent, HomeAgentV2
from .home import TOOLS, SimulatedHome

__all__ = ["TOOLS", "HomeAgent", "HomeAgentV2", "SimulatedHome"]
