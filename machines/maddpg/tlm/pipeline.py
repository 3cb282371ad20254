"""The stages of a learner's two training pipelines (the MADDPG paper, section III-B and Fig. 4) for
given networks.

A learner trains one agent. With ``L``-layer networks -- the policy ``pi`` with widths
``actor = (obs, h_1, ..., act)``, the value network ``q`` with ``critic = (q_in, h_1, ..., 1)``
and their targets ``pi'``, ``q'`` -- the two pipelines are:

* **value** (``5 L`` stages): FP through the L layers of ``pi'`` (the agent's target action on
  the next observation, which the ring shares with the other learners), of ``q'`` (the
  target value) and of ``q``; one LOSS stage (``y = r + gamma (1 - d) q'``, the error
  ``2 (q - y) / B``); BP through ``q``'s layers ``L .. 2`` (``L - 1`` stages: the input
  gradient of layer 1 is not needed); WU of ``q``'s L layers.
* **policy** (``5 L - 1`` stages): FP through ``pi`` (with the Gumbel-softmax head) and ``q``
  (the agent's fresh action in place of its stored one); BP through ``q``'s layers
  ``L .. 1`` (layer 1 only for the ``act`` columns of the agent's own action: the paper's
  "elements associated with x(t) skipped through an offset" of the FIXAR paper, ``ID x OD =
  h_1 x act``); BP through ``pi``'s layers ``L .. 2`` (``L - 1`` stages; the softmax's
  Jacobian and the regulariser are folded into the first); WU of ``pi``'s L layers. The paper's
  text says "WU for L number of value layers" here; the count ``5 L - 1`` and the pipeline's
  purpose say policy layers.

A stage's shape is the ``ID x OD`` of eq. 4: for FP the layer's input and output widths; BP
and WU through a layer have the same ``ID x OD`` (``W^T d`` and ``d x^T`` over the same
matrix). The LOSS stage is ``1 x 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.util.errors import ArchError
from rlaccel.util.numbers import is_whole

__all__ = ["Stage", "value_stages", "policy_stages", "learner_stages"]


@dataclass(frozen=True)
class Stage:
    """One pipeline stage: ``kind`` (FP, BP, WU, LOSS), the network (``pi``, ``q``, ``pi'``,
    ``q'``), the layer (1-based; 0 for LOSS) and the ``ID x OD`` it works on."""

    kind: str
    net: str
    layer: int
    id: int
    od: int

    @property
    def name(self) -> str:
        return "LOSS" if self.kind == "LOSS" else f"{self.kind} {self.net} L{self.layer}"

    @property
    def work(self) -> int:
        return self.id * self.od


def _check(sizes, what: str) -> tuple[int, ...]:
    sizes = tuple(sizes)
    if len(sizes) < 2 or not all(map(is_whole, sizes)):
        raise ArchError(f"{what} widths must be two or more positive integers, not {sizes!r}")
    return sizes


def _fp(net: str, sizes) -> list[Stage]:
    return [Stage("FP", net, l, sizes[l - 1], sizes[l]) for l in range(1, len(sizes))]


def _layers_match(actor, critic) -> int:
    if len(actor) != len(critic):
        raise ArchError(f"the policy ({len(actor) - 1} layers) and value ({len(critic) - 1} "
                        f"layers) networks must have the same number of layers L")
    if critic[-1] != 1:
        raise ArchError(f"the value network must end in one output, not {critic[-1]}")
    return len(actor) - 1


def value_stages(actor, critic) -> list[Stage]:
    """The value training pipeline's ``5 L`` stages, in dataflow order."""
    actor, critic = _check(actor, "policy network"), _check(critic, "value network")
    L = _layers_match(actor, critic)
    stages = _fp("pi'", actor) + _fp("q'", critic) + _fp("q", critic)
    stages.append(Stage("LOSS", "q", 0, 1, 1))
    stages += [Stage("BP", "q", l, critic[l - 1], critic[l]) for l in range(L, 1, -1)]
    stages += [Stage("WU", "q", l, critic[l - 1], critic[l]) for l in range(L, 0, -1)]
    return stages


def policy_stages(actor, critic) -> list[Stage]:
    """The policy training pipeline's ``5 L - 1`` stages, in dataflow order."""
    actor, critic = _check(actor, "policy network"), _check(critic, "value network")
    L = _layers_match(actor, critic)
    stages = _fp("pi", actor) + _fp("q", critic)
    stages += [Stage("BP", "q", l, critic[l - 1], critic[l]) for l in range(L, 1, -1)]
    stages.append(Stage("BP", "q", 1, actor[-1], critic[1]))      # the own-action columns
    stages += [Stage("BP", "pi", l, actor[l - 1], actor[l]) for l in range(L, 1, -1)]
    stages += [Stage("WU", "pi", l, actor[l - 1], actor[l]) for l in range(L, 0, -1)]
    return stages


def learner_stages(actor, critic) -> dict[str, list[Stage]]:
    """Both pipelines of one learner: ``{"value": [...], "policy": [...]}``."""
    return {"value": value_stages(actor, critic), "policy": policy_stages(actor, critic)}
