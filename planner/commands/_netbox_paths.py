"""Which cables of a plan's NetBox bundle may be written side by side.

NetBox traces a cable path (interface, cord, panel front and rear ports, trunk, ..., cord,
interface) when each cable of it is saved, inside that request's transaction, and sees only
what other transactions have committed (PostgreSQL's read committed). The two cords of one
path written at once would each end their path at the other's panel port, and neither path
would reach the far interface. So a push writes the cables between panel ports (trunks)
before any cord, and the cords in rounds: no two cords of one path in the same round.
"""

from __future__ import annotations

OTHER_SIDE = {"dcim.frontport": "dcim.rearport", "dcim.rearport": "dcim.frontport"}


def cord_rounds(devices: list[dict], device_types: list[dict], cables: list[dict]) -> dict[int, int]:
    """Round (0, 1, ...) of every cord (a cable with an interface at one end and a panel port at
    the other) by its index in ``cables``; two cords joined by panels and trunks are never in
    the same round. Rounds are given in the order of ``cables`` (the lowest round that none of
    a cord's far cords has yet), so the same bundle gives the same rounds."""
    model = {d["name"]: d["device_type"] for d in devices}
    mapped: dict[tuple[str, str, str], set[str]] = {}
    for doc in device_types:
        for m in doc.get("port-mappings", []):
            mapped.setdefault((doc["model"], "dcim.frontport", m["front_port"]),
                              set()).add(m["rear_port"])
            mapped.setdefault((doc["model"], "dcim.rearport", m["rear_port"]),
                              set()).add(m["front_port"])
    held: dict[tuple, tuple[int, tuple]] = {}  # a cable's end -> (cable index, its far end)
    cords: list[tuple[int, tuple]] = []  # (index, the panel port it lands on)
    for i, row in enumerate(cables):
        a = (row["side_a_type"], row["side_a_device"], row["side_a_name"])
        b = (row["side_b_type"], row["side_b_device"], row["side_b_name"])
        held[a], held[b] = (i, b), (i, a)
        kinds = {a[0], b[0]}
        if "dcim.interface" in kinds and kinds != {"dcim.interface"}:
            cords.append((i, a if a[0] != "dcim.interface" else b))

    def through(port: tuple) -> list[tuple]:
        """The ports of the same panel on the other side of ``port`` (front to rear or back)."""
        kind, device, name = port
        return [(OTHER_SIDE[kind], device, n)
                for n in sorted(mapped.get((model.get(device), kind, name), ()))]

    def far_cords(port: tuple) -> set[int]:
        found, seen, todo = set(), set(), through(port)
        while todo:
            here = todo.pop()
            if here in seen or here not in held:
                continue
            seen.add(here)
            i, far = held[here]
            if far[0] == "dcim.interface":
                found.add(i)
            else:
                todo.extend(through(far))
        return found

    rounds: dict[int, int] = {}
    for i, port in cords:
        taken = {rounds[j] for j in far_cords(port) if j in rounds}
        rounds[i] = next(r for r in range(len(taken) + 1) if r not in taken)
    return rounds
