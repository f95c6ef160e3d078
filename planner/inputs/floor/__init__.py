"""Floor layouts: a built-in name (``layouts/*.yaml``) or the path of a floor YAML file in; a
validated ``Floor``, its cabinet geometry and the ``Room`` a placed system occupies out.

Two kinds of floor: the papers' abstract grid (no ``hall`` block) and halls of rows, cross trays
and hall links (a ``hall`` block); ``docs/floors.md`` describes every field.

- ``schema``: ``Hall`` and ``Floor``, the checks of one file, ``list_floors`` / ``load_floor``;
- ``capacity``: what an electrical group and a cabinet hold, ``check_capacity``;
- ``geometry``: grid shape, positions, names, aisles, grid cable lengths, rack units;
- ``halls``: ``Room``, hall footprint, cross trays, hall sizes, slot layout, ``room_of``;
- ``routes``: the tray route and length of a cable between two cabinet positions;
- ``rack_positions``: where the patch racks of structured cabling stand, ``hall_bounds``;
- ``positions``: the positions of an existing room marked blocked, occupied or reserved
  (``hall.positions``), which nothing is placed in.
"""

from planner.inputs.floor.capacity import check_capacity, group_capacity
from planner.inputs.floor.geometry import (aisle_is_cold, cabinet_name, cabinet_names,
                                           cabinet_positions, cabinet_xy, cable_length_m,
                                           endpoint_ru_of, front_aisle, grid_shape,
                                           mean_manhattan_m, padded, position_numbers,
                                           rack_gaps, router_ru, row_letters)
from planner.inputs.floor.halls import Room, hall_footprint_m, room_of, slot_layout
from planner.inputs.floor import schema as _schema
from planner.inputs.floor.positions import marked_positions
from planner.inputs.floor.schema import COPPER_NS_PER_M, FIBRE_NS_PER_M, Floor, Hall, list_floors
from planner.inputs.tuning import MIN_ASPECT

__all__ = ["COPPER_NS_PER_M", "FIBRE_NS_PER_M", "MIN_ASPECT", "Floor", "Hall", "Room",
           "aisle_is_cold", "cabinet_name", "cabinet_names", "cabinet_positions", "cabinet_xy",
           "cable_length_m", "check_capacity", "endpoint_ru_of", "front_aisle", "grid_shape",
           "group_capacity", "hall_footprint_m", "list_floors", "load_floor", "marked_positions",
           "mean_manhattan_m", "padded", "position_numbers", "rack_gaps", "room_of", "router_ru",
           "row_letters", "slot_layout"]


def load_floor(name_or_path) -> Floor:
    """A built-in floor by name, or a floor YAML file (``schema.load_floor``), its marked
    positions resolved once so that a bad one is refused before anything runs
    (``positions.marked_positions``); InputError with file + field."""
    floor = _schema.load_floor(name_or_path)
    marked_positions(floor)
    return floor
