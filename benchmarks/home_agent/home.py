"""A simulated smart home: lights, doors, thermostat and scenes, driven through tool calls."""

from __future__ import annotations

from typing import Any

ROOMS = ("kitchen", "living_room", "bedroom", "bathroom", "office", "hallway")
DOORS = ("front", "back", "garage")
MODES = ("heat", "cool", "auto", "off")

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "description": "Switch one room's light on or off, optionally at a brightness (0-100).",
            "parameters": {
                "type": "object",
                "properties": {
                    "room": {"type": "string", "enum": list(ROOMS)},
                    "state": {"type": "string", "enum": ["on", "off"]},
                    "brightness": {"type": "integer", "minimum": 0, "maximum": 100},
                },
                "required": ["room", "state"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_all_lights",
            "description": "Switch every light in the house on or off.",
            "parameters": {
                "type": "object",
                "properties": {"state": {"type": "string", "enum": ["on", "off"]}},
                "required": ["state"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lock_door",
            "description": "Lock a door.",
            "parameters": {"type": "object", "properties": {"door": {"type": "string", "enum": list(DOORS)}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "unlock_door",
            "description": "Unlock a door.",
            "parameters": {"type": "object", "properties": {"door": {"type": "string", "enum": list(DOORS)}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_thermostat",
            "description": "Set the target temperature (Celsius) and/or the mode.",
            "parameters": {
                "type": "object",
                "properties": {
                    "target_c": {"type": "number", "minimum": 10, "maximum": 30},
                    "mode": {"type": "string", "enum": list(MODES)},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "activate_scene",
            "description": "Apply a named scene: movie, good_night, morning or away.",
            "parameters": {
                "type": "object",
                "properties": {"scene": {"type": "string"}},
                "required": ["scene"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_status",
            "description": "Read the current state of lights, doors, the thermostat, or everything.",
            "parameters": {
                "type": "object",
                "properties": {
                    "device_type": {"type": "string", "enum": ["lights", "doors", "thermostat", "all"]}
                },
            },
        },
    },
]
"""The tools, in the OpenAI function-calling format."""


class ToolError(Exception):
    """A tool call the home rejects (unknown room, bad value); its message goes back to the agent."""


class SimulatedHome:
    """The world a scenario acts on; ``state`` is the dict the benchmark hands to the agent."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state
        self.state.setdefault("lights", {})
        self.state.setdefault("doors", {})
        self.state.setdefault("thermostat", {})
        self.state.setdefault("scenes", {"active": None, "available": {}})

    def execute(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call; unknown tools and bad arguments raise ToolError."""
        handler = getattr(self, f"_tool_{name}", None)
        if handler is None:
            raise ToolError(f"unknown tool {name!r}")
        try:
            result: dict[str, Any] = handler(**args)
        except TypeError as exc:
            raise ToolError(f"bad arguments for {name}: {exc}") from exc
        return result

    def _tool_set_light(self, room: str, state: str, brightness: int | None = None) -> dict[str, Any]:
        if room not in self.state["lights"]:
            raise ToolError(f"no light in room {room!r}")
        if state not in ("on", "off"):
            raise ToolError("state must be 'on' or 'off'")
        light = self.state["lights"][room]
        light["state"] = state
        if brightness is not None:
            light["brightness"] = max(0, min(100, int(brightness)))
        elif state == "on" and not light.get("brightness"):
            light["brightness"] = 100
        return {"room": room, **light}

    def _tool_set_all_lights(self, state: str) -> dict[str, Any]:
        for room in self.state["lights"]:
            self._tool_set_light(room, state)
        return {"rooms": sorted(self.state["lights"]), "state": state}

    def _door(self, door: str) -> dict[str, Any]:
        if door not in self.state["doors"]:
            raise ToolError(f"no door called {door!r}")
        found: dict[str, Any] = self.state["doors"][door]
        return found

    def _tool_lock_door(self, door: str = "front") -> dict[str, Any]:
        self._door(door)["locked"] = True
        return {"door": door, "locked": True}

    def _tool_unlock_door(self, door: str = "front") -> dict[str, Any]:
        self._door(door)["locked"] = False
        return {"door": door, "locked": False}

    def _tool_set_thermostat(self, target_c: float | None = None, mode: str | None = None) -> dict[str, Any]:
        thermostat = self.state["thermostat"]
        if target_c is not None:
            if not 10 <= float(target_c) <= 30:
                raise ToolError("target_c must be between 10 and 30")
            thermostat["target_c"] = target_c
        if mode is not None:
            if mode not in MODES:
                raise ToolError(f"mode must be one of {', '.join(MODES)}")
            thermostat["mode"] = mode
        return dict(thermostat)

    def _tool_activate_scene(self, scene: str) -> dict[str, Any]:
        available = self.state["scenes"].get("available", {})
        if scene not in available:
            raise ToolError(f"no scene called {scene!r}")
        spec = available[scene]
        for room, light in spec.get("lights", {}).items():
            self._tool_set_light(room, light["state"], light.get("brightness"))
        for door, locked in spec.get("doors", {}).items():
            self._door(door)["locked"] = locked
        if "thermostat" in spec:
            self._tool_set_thermostat(**spec["thermostat"])
        self.state["scenes"]["active"] = scene
        return {"scene": scene, "applied": True}

    def _tool_get_status(self, device_type: str = "all") -> dict[str, Any]:
        parts = {"lights": "lights", "doors": "doors", "thermostat": "thermostat"}
        if device_type == "all":
            return {key: self.state[key] for key in parts}
        if device_type not in parts:
            raise ToolError("device_type must be lights, doors, thermostat or all")
        return {device_type: self.state[device_type]}
