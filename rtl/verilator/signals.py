"""Signal-like proxies of a compiled block's ports: what the benches' and transactors'
drivers already use on MyHDL signals, on the Verilator model instead.

A driver sets an input with ``port.next = value`` and reads a port with ``port.val``,
``int(port)`` or ``bool(port)``; it waits on ``io.clk.negedge``, ``io.clk.posedge`` or
``delay(n)``. :class:`InPort` and :class:`OutPort` give the same meaning on the model's
buffers (:mod:`.model`): a value set with ``.next`` goes into the input's slots at once but
reads back as the port's value only after the kernel's next event, when the model took it
-- MyHDL's rule that a signal changes after every process of the time step ran. An output
reads what the model gave at its last event. Values are checked against the MyHDL signal's
range as MyHDL checks them, and read back as MyHDL gives them (``bool`` for a bool signal,
signed for a signed one). :class:`Wire` is a signal only the Python side has (the reset of
a combinational block's bench); :class:`Bundle` mirrors a MyHDL interface object of
signals. :class:`Clock` carries the two edges the kernel knows, and :class:`Until`, a wait for a port
over falling edges.
"""

from __future__ import annotations

from types import SimpleNamespace

from myhdl._Signal import _Signal

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.verilator.ports import Layout

__all__ = ["Clock", "Until", "Readable", "value_of", "map_ports", "InPort", "OutPort", "Wire", "Bundle", "proxies"]


class Edge:
    """A clock edge a process waits on (``yield io.clk.negedge``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


class Until:
    """A wait, a falling edge at a time, until ``port`` is true or ``limit`` rising edges
    (None: no limit) have been counted (``yield io.clk.until(port, limit)``)."""

    __slots__ = ("port", "limit")

    def __init__(self, port, limit: int | None):
        self.port, self.limit = port, limit

    def met(self, cycles: int) -> bool:
        """True at a falling edge after ``cycles`` rising edges: the wait is over."""
        return bool(self.port.val) or (self.limit is not None and cycles >= self.limit)

    def __repr__(self) -> str:
        return f"<until {getattr(self.port, 'name', self.port)} or cycle {self.limit}>"


class Clock:
    """The clock of a kernel: its two edges, its level (``.val``), and :meth:`until`."""

    def __init__(self):
        self.posedge = Edge("posedge")
        self.negedge = Edge("negedge")
        self.val = False

    @staticmethod
    def until(port, limit: int | None = None) -> Until:
        """What a process yields to wait for falling edges until ``port`` is true (or
        ``limit`` cycles): one wait for the kernel, which may clock the model through the
        cycles in compiled code (:mod:`rtl.drive` uses it where a back end's clock has
        it)."""
        return Until(port, limit)

    def __bool__(self) -> bool:
        return self.val


class Readable:
    """A port read as MyHDL's signals are: ``int(port)``, ``bool(port)``, an index, from
    its ``val``."""

    __slots__ = ()

    def __int__(self) -> int:
        return int(self.val)

    __index__ = __int__

    def __bool__(self) -> bool:
        return bool(self.val)


def value_of(v: int, boolean: bool, signed: bool, width: int):
    """A port's ``width`` bits ``v`` as MyHDL gives a signal's value: ``bool`` for a bool
    signal, two's complement for a signed one."""
    if boolean:
        return bool(v)
    if signed and v >> (width - 1):
        v -= 1 << width
    return v


def map_ports(ports: dict, make) -> dict:
    """``make(name, signal)`` for every port of a bench (``{name: Signal or interface}``):
    a signal by its name, an interface's signals by ``<name>_<attribute>`` as MyHDL's
    converter names them, in a :class:`Bundle`."""
    out = {}
    for name, sig in ports.items():
        if isinstance(sig, _Signal):
            out[name] = make(name, sig)
        else:
            out[name] = Bundle(**{attr: make(f"{name}_{attr}", s)
                                  for attr, s in vars(sig).items()
                                  if isinstance(s, _Signal)})
    return out


class _Port(Readable):
    """What every proxy shares: its name, its MyHDL signal's kind, range and value."""

    __slots__ = ("name", "_kernel", "_bool", "_lo", "_hi", "_val", "_pend", "_dirty")

    def __init__(self, name: str, sig, kernel):
        self.name = name
        self._kernel = kernel
        self._bool = sig._type is bool
        width = len(sig)
        if self._bool:
            self._lo, self._hi = 0, 1
        else:
            self._lo = 0 if sig.min is None else sig.min
            self._hi = (1 << width) - 1 if sig.max is None else sig.max - 1
        self._val = int(sig.val)
        self._pend = self._val
        self._dirty = False

    def _check(self, value) -> int:
        v = int(value)
        if not self._lo <= v <= self._hi:
            raise RtlError(f"port {self.name}: {v} is out of its range "
                           f"[{self._lo}, {self._hi}]")
        return v

    def _set(self, v: int) -> None:
        """The value now taken (the kernel's event)."""
        self._val = v
        self._dirty = False

    @property
    def val(self):
        return bool(self._val) if self._bool else self._val

    def __len__(self) -> int:
        return self._hi.bit_length() if self._lo >= 0 else (-self._lo).bit_length()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}={self.val}>"


class Wire(_Port):
    """A signal of the Python side only (not a port of the compiled block)."""

    __slots__ = ()

    @property
    def next(self):
        return self._pend

    @next.setter
    def next(self, value) -> None:
        self._pend = self._check(value)
        if not self._dirty:
            self._dirty = True
            self._kernel._dirty.append(self)

    def _commit(self) -> None:
        self._set(self._pend)


class InPort(Wire):
    """An input of the compiled block: ``.next`` writes its buffer slots."""

    __slots__ = ("_buf", "_slot", "_words", "_mask")

    def __init__(self, name: str, sig, kernel, buf, slot: int, width: int):
        super().__init__(name, sig, kernel)
        self._buf, self._slot = buf, slot
        self._words = -(-width // 64)
        self._mask = (1 << width) - 1
        self._write(self._val)

    def _write(self, v: int) -> None:
        v &= self._mask
        if self._words == 1:
            self._buf[self._slot] = v
        else:
            for w in range(self._words):
                self._buf[self._slot + w] = (v >> (64 * w)) & 0xFFFF_FFFF_FFFF_FFFF

    @property
    def next(self):
        return self._pend

    @next.setter
    def next(self, value) -> None:
        v = self._pend = self._check(value)
        self._write(v)
        if not self._dirty:
            self._dirty = True
            self._kernel._dirty.append(self)


class OutPort(Readable):
    """An output of the compiled block: its value at the model's last event."""

    __slots__ = ("name", "_buf", "_slot", "_words", "_bool", "_signed", "_top")

    def __init__(self, name: str, sig, buf, slot: int, width: int, signed: bool):
        self.name = name
        self._buf, self._slot = buf, slot
        self._words = -(-width // 64)
        self._bool = sig._type is bool
        self._signed = signed or (sig.min is not None and sig.min < 0)
        self._top = width

    @property
    def val(self):
        if self._words == 1:
            v = self._buf[self._slot]
        else:
            v = 0
            for w in range(self._words):
                v |= self._buf[self._slot + w] << (64 * w)
        return value_of(v, self._bool, self._signed, self._top)

    @property
    def next(self):
        raise RtlError(f"port {self.name} is an output of the block: a driver reads it")

    @next.setter
    def next(self, value) -> None:
        raise RtlError(f"port {self.name} is an output of the block: a driver cannot set it")

    def __len__(self) -> int:
        return self._top

    @property
    def slot(self) -> int:
        """The output buffer slot the port starts at."""
        return self._slot

    @property
    def words(self) -> int:
        """The 64-bit slots it takes."""
        return self._words

    def __repr__(self) -> str:
        return f"<OutPort {self.name}={self.val}>"


class Bundle(SimpleNamespace):
    """A MyHDL interface object's signals as proxies, by attribute."""


def _proxy(name: str, sig, layout: Layout, kernel, model):
    port = layout.by_name.get(name)
    if port is None:
        return Wire(name, sig, kernel)
    if len(sig) != port.width:
        raise RtlError(f"port {name}: the Verilog has {port.width} bits, the MyHDL signal "
                       f"{len(sig)}")
    if port.output:
        return OutPort(name, sig, model.out, port.slot, port.width, port.signed)
    return InPort(name, sig, kernel, model.inp, port.slot, port.width)


def proxies(ports: dict, layout: Layout, kernel, model) -> dict:
    """The proxies of a bench's MyHDL ports (``{name: Signal or interface}``) on ``model``
    (:func:`map_ports`)."""
    return map_ports(ports, lambda name, sig: _proxy(name, sig, layout, kernel, model))
