"""Link parts: which orderable parts carry each link at its routed length, and their price.

``media`` chooses per link a copper or AOC assembly, or a transceiver at each end plus a fibre,
by the floor's media rule and the catalog's reach; ``structured`` splits a route that leaves
its row at the patch panels it meets and prices the chain cord -> panel -> trunk -> panel ->
cord. ``budget`` is the optical channel both check a transceiver against: the fibre installed
(stock lengths summed) and the connections crossed, within its reach and loss budget; a part
that does not light a link is not chosen for it. Placement prices candidate layouts with these
functions and the cabling stage orders with them, so what placement minimises is what the bill
charges.

Takes a ``Catalog``, a ``Floor`` and routed lengths; hands on ``LinkParts`` (part, ordered
length, price per link, structured pieces, optical channel).
"""
