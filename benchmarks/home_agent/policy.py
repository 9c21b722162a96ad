"""A deterministic rule-based 'model' that reads OpenAI-format messages and answers with tool calls or text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .home import DOORS, ROOMS

ROOM_WORDS: dict[str, str] = {
    "kitchen": "kitchen",
    "living room": "living_room",
    "living_room": "living_room",
    "lounge": "living_room",
    "bedroom": "bedroom",
    "bathroom": "bathroom",
    "office": "office",
    "study": "office",
    "hallway": "hallway",
    "hall": "hallway",
    "corridor": "hallway",
}
ALL_LIGHTS = re.compile(
    r"\ball (?:of )?(?:the )?(?:lights|lamps)\b|\bevery (?:light|lamp|room)\b|\bwhole house\b|"
    r"\bentire house\b|\beverywhere\b|\bthe house dark\b"
)
SCENES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bmovie\b|\bfilm\b"), "movie"),
    (re.compile(r"\bgood ?night\b|\bgoing to bed\b|\bbedtime\b"), "good_night"),
    (re.compile(r"\bgood morning\b|\bmorning routine\b|\bjust woke up\b"), "morning"),
    (re.compile(r"\bleaving\b|\bheading out\b|\baway mode\b"), "away"),
]
ACTION = re.compile(r"\b(turn|switch|put|set|make|lock|unlock|dim|brighten|kill|activate|start)\b")
QUESTION_START = re.compile(r"^(is|are|what|which|how|did|do|does|tell me|show me|give me)\b")
QUESTION = re.compile(r"\bstatus\b|\?$")


@dataclass
class Intents:
    """What the user asked for, parsed from the prompt."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    thermostat: dict[str, Any] = field(default_factory=dict)
    relative_c: float | None = None
    scene: str | None = None
    status: str | None = None
    as_json: bool = False
    subject: str | None = None


class RulePolicy:
    """Stands in for an LLM: same input (messages + tools), same output (an assistant message)."""

    all_lights_supported = True
    """Version 2 lost this: 'all lights' falls through to the default room."""
    default_room = "living_room"

    def next_message(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The next assistant message: tool calls for the next round, or the final answer."""
        prompt = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        intents = self.parse(prompt)
        results = _tool_results(messages)
        rounds_done = sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
        if rounds_done == 0:
            calls = self.first_round(intents)
        elif rounds_done == 1 and intents.relative_c is not None:
            current = results.get("get_status", {}).get("thermostat", {}).get("target_c", 20)
            calls = [("set_thermostat", {"target_c": current + intents.relative_c})]
        else:
            calls = []
        if calls:
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{rounds_done}_{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                    for i, (name, args) in enumerate(calls)
                ],
            }
        return {"role": "assistant", "content": self.answer(intents, messages, results)}

    # -- understanding ------------------------------------------------------------------------
    def parse(self, prompt: str) -> Intents:
        """Turn the prompt into intents, clause by clause."""
        text = " ".join(prompt.lower().replace("’", "'").split())
        intents = Intents()
        for pattern, scene in SCENES:
            if pattern.search(text):
                intents.scene = scene
                return intents
        if QUESTION_START.search(text) or (QUESTION.search(text) and not ACTION.search(text)):
            self._status(text, intents)
            return intents
        light_state: str | None = None
        lock: bool | None = None
        rooms_seen: list[str] = []
        for clause in re.split(r"\band\b|,|;|\bthen\b|\balso\b|\bbut\b", text):
            light_state = self._light_state(clause) or light_state
            if re.search(r"\bunlock\b", clause):
                lock = False
            elif re.search(r"\block\b|\bsecure\b", clause):
                lock = True
            if "door" in clause or re.search(r"\b(un)?lock\b|\bgarage\b", clause):
                if lock is not None:
                    for door in _doors(clause):
                        intents.calls.append(("lock_door" if lock else "unlock_door", {"door": door}))
            elif re.search(
                r"thermostat|temperature|heating|\bheat\b|\bcool|warmer|colder|degrees|°|\bac\b", clause
            ):
                self._thermostat(clause, intents)
            elif light_state is not None:
                self._lights(clause, light_state, intents, rooms_seen)
            rooms_seen += _rooms(clause)
        return intents

    def _light_state(self, clause: str) -> str | None:
        if re.search(r"\boff\b|\bmake\b.*\bdark\b|\bkill\b", clause):
            return "off"
        if re.search(r"\bon\b|\bdim\b|\bbrighten\b|\blight up\b", clause):
            return "on"
        return None

    def _lights(self, clause: str, state: str, intents: Intents, rooms_seen: list[str]) -> None:
        if self.all_lights_supported and ALL_LIGHTS.search(clause):
            keep = re.search(r"\b(?:except|but not|apart from)\b(.*)", clause)
            excluded = _rooms(keep.group(1)) if keep else []
            if excluded:
                for room in ROOMS:
                    if room not in excluded:
                        intents.calls.append(("set_light", {"room": room, "state": state}))
            else:
                intents.calls.append(("set_all_lights", {"state": state}))
            return
        found = re.search(r"(\d{1,3})\s*(%|percent)", clause)
        brightness = int(found.group(1)) if found else (30 if "dim" in clause else None)
        rooms = _rooms(clause)
        if not rooms and re.search(r"\blights?\b|\blamps?\b", clause):
            rooms = rooms_seen[-1:] or [self.default_room]
        for room in rooms:
            args: dict[str, Any] = {"room": room, "state": state}
            if brightness is not None:
                args["brightness"] = brightness
            intents.calls.append(("set_light", args))

    def _thermostat(self, clause: str, intents: Intents) -> None:
        number = re.search(
            r"(\d{2}(?:\.\d)?)\s*(°\s*[cf]?|degrees(?: (?:celsius|fahrenheit))?|c\b|f\b)?", clause
        )
        if number:
            value = float(number.group(1))
            unit = (number.group(2) or "").strip()
            if unit.endswith(("f", "fahrenheit")):
                value = round((value - 32) * 5 / 9)
            intents.thermostat["target_c"] = int(value) if float(value).is_integer() else value
        elif "warmer" in clause or "colder" in clause or "cooler" in clause:
            step = 1 if re.search(r"\b(a bit|a little|slightly|one degree)\b", clause) else 2
            intents.relative_c = step if "warmer" in clause else -step
        if re.search(r"\b(turn off|switch off)\b.*\b(heating|thermostat|ac)\b|\bthermostat off\b", clause):
            intents.thermostat["mode"] = "off"
        elif re.search(r"\bcool(ing)? mode\b|\bair ?con|\bac\b", clause):
            intents.thermostat["mode"] = "cool"
        elif re.search(r"\bheat(ing)? mode\b|\bturn on the heating\b", clause):
            intents.thermostat["mode"] = "heat"
        elif re.search(r"\bauto\b", clause):
            intents.thermostat["mode"] = "auto"

    def _status(self, text: str, intents: Intents) -> None:
        intents.as_json = "json" in text
        if "everything" in text or "whole house" in text or "all devices" in text:
            intents.status = "all"
        elif re.search(r"door|locked", text):
            intents.status = "doors"
            intents.subject = next((d for d in DOORS if re.search(rf"\b{d}\b", text)), None)
        elif re.search(r"thermostat|temperature|degrees|warm|cold|heating", text):
            intents.status = "thermostat"
        elif re.search(r"light|lamp|dark", text):
            intents.status = "lights"
            intents.subject = next(iter(_rooms(text)), None)
        else:
            intents.status = "all"

    # -- acting -------------------------------------------------------------------------------
    def first_round(self, intents: Intents) -> list[tuple[str, dict[str, Any]]]:
        """The tool calls that can be made straight from the prompt."""
        calls: list[tuple[str, dict[str, Any]]] = []
        if intents.scene:
            return [("activate_scene", {"scene": intents.scene})]
        if intents.status:
            return [("get_status", {"device_type": intents.status})]
        calls += intents.calls
        if intents.relative_c is not None:
            calls.append(("get_status", {"device_type": "thermostat"}))
        elif intents.thermostat:
            calls.append(("set_thermostat", dict(intents.thermostat)))
        return calls

    def answer(self, intents: Intents, messages: list[dict[str, Any]], results: dict[str, Any]) -> str:
        """The final text for the user."""
        errors = [r["error"] for r in _all_results(messages) if isinstance(r, dict) and "error" in r]
        if errors:
            return "Sorry, I couldn't do all of that: " + "; ".join(errors)
        if intents.status:
            return self._describe(intents, results.get("get_status", {}))
        done = _all_results(messages)
        if not done:
            return "Sorry, I'm not sure what you'd like me to do in the house."
        return "Done: " + "; ".join(_summary(r) for r in done) + "."

    def _describe(self, intents: Intents, status: dict[str, Any]) -> str:
        if intents.as_json:
            return json.dumps(status.get(intents.status or "", status), sort_keys=True)
        parts: list[str] = []
        lights = status.get("lights")
        if lights is not None:
            if intents.subject:
                parts.append(
                    f"The {intents.subject.replace('_', ' ')} light is {lights[intents.subject]['state']}."
                )
            else:
                on = [r.replace("_", " ") for r, v in lights.items() if v["state"] == "on"]
                parts.append(f"Lights on: {', '.join(on)}." if on else "All lights are off.")
        doors = status.get("doors")
        if doors is not None:
            chosen = [intents.subject] if intents.subject else list(doors)
            for door in chosen:
                parts.append(f"The {door} door is {'locked' if doors[door]['locked'] else 'unlocked'}.")
        thermostat = status.get("thermostat")
        if thermostat is not None:
            parts.append(
                f"The thermostat is set to {thermostat['target_c']}°C in {thermostat['mode']} mode; "
                f"it is {thermostat.get('current_c', '?')}°C inside."
            )
        return " ".join(parts)


def _rooms(clause: str) -> list[str]:
    found = [room for word, room in ROOM_WORDS.items() if re.search(rf"\b{word}\b", clause)]
    return list(dict.fromkeys(found))


def _doors(clause: str) -> list[str]:
    if re.search(r"\b(all|every|each)\b.*\bdoors?\b|\beverything\b|\bdoors\b", clause):
        return list(DOORS)
    return [d for d in DOORS if re.search(rf"\b{d}\b", clause)] or ["front"]


def _all_results(messages: list[dict[str, Any]]) -> list[Any]:
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


def _tool_results(messages: list[dict[str, Any]]) -> dict[str, Any]:
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
    return {names[m["tool_call_id"]]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}


def _summary(result: Any) -> str:
    if not isinstance(result, dict):
        return str(result)
    if "room" in result:
        return f"{result['room'].replace('_', ' ')} light {result['state']}"
    if "rooms" in result:
        return f"all lights {result['state']}"
    if "door" in result:
        return f"{result['door']} door {'locked' if result['locked'] else 'unlocked'}"
    if "scene" in result:
        return f"scene {result['scene']} on"
    if "target_c" in result:
        return f"thermostat {result['target_c']}°C ({result.get('mode')})"
    return json.dumps(result, sort_keys=True)
