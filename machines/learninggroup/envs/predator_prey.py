"""IC3Net's predator-prey grid world as a PettingZoo parallel environment
(``rlaccel/PredatorPrey-v2``).

LearningGroup (the paper, section IV-A) trains IC3Net on "Predator-Prey-v2": A cooperative
agents (predators) search for a stationary prey. The environment IC3Net defines it with is
``ic3net-envs/ic3net_envs/predator_prey_env.py`` of ``IC3Net/IC3Net`` (read for this module,
re-written here). Its rules:

* A ``dim`` x ``dim`` grid, ``nagents`` predators and one prey that never moves. At reset all
  of them take distinct cells drawn uniformly at random.
* Actions per predator (``Discrete(5)``): 0 up (row - 1), 1 right (column + 1), 2 down,
  3 left, 4 stay. A move off the grid leaves the predator where it is.
* A predator that stands on the prey after a step has *reached* it and is frozen there for
  the rest of the episode (its later actions are ignored).
* Reward (``mode="mixed"``, IC3Net's default): -0.05 per step for every predator not on the
  prey, 0 for one on it. ``"cooperative"``: a predator on the prey gets 0.05 times the
  number of predators on it; ``"competitive"``: 0.05 divided by that number.
* The episode *terminates* for every predator when all of them have reached the prey
  (``mixed`` and ``cooperative`` modes; IC3Net ends only ``mixed`` episodes this way, see
  below) and is *truncated* for every predator after ``max_steps`` steps. Predators never
  leave ``agents`` early: IC3Net feeds all of them to its network at every step.
* Observation per predator: the ``(2v+1) x (2v+1)`` window around it (``v = vision``), each
  cell a multi-hot vector of ``vocab = dim*dim + 4`` entries: the one-hot index of the cell
  (``row*dim + column``, so a predator knows where it is), then index ``dim*dim`` (never set,
  kept so the layout equals IC3Net's), ``dim*dim + 1`` OUTSIDE (a window cell beyond the
  grid: only this entry is set), ``dim*dim + 2`` the prey count, ``dim*dim + 3`` the predator
  count (several predators may share a cell). Shape ``(2v+1, 2v+1, vocab)``, float32;
  IC3Net flattens it to ``(2v+1)^2 * vocab`` inputs in this (row, column, entry) order.

Success (IC3Net's ``stat['success']``, the accuracy the paper reports in Fig. 4(a) and 9):
an episode succeeds when every predator stands on the prey when it ends, i.e. the episode
terminated before ``max_steps``. ``info[agent]["success"]`` carries it at every step (1 once
all predators are on the prey); ``info[agent]["caught"]`` says whether at least one predator
has reached the prey, the reading of the paper's "number of successes in catching prey" under
which more agents means more successes (see ``machines/learninggroup/README.md``).

IC3Net's ``competitive`` mode never ends an episode early and counts no success; here the
episode ends the same way in every mode (all predators on the prey), which changes nothing in
the default ``mixed`` mode the paper and IC3Net use.

Randomness comes only from the generator seeded by ``reset(seed=...)``, so a seed fixes the
start cells and, with the same actions, the whole episode.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from rlaccel.util.errors import RlaccelError

__all__ = ["PredatorPreyEnv", "PredatorPreyError", "MOVES", "MODES"]

#: (row, column) step of each action: up, right, down, left, stay
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1], [0, 0]], dtype=np.int64)
MODES = ("mixed", "cooperative", "competitive")
TIMESTEP_PENALTY = -0.05
POS_PREY_REWARD = 0.05
_RENDER_MODES = ("ansi",)


class PredatorPreyError(RlaccelError, ValueError):
    """A bad option or action for the predator-prey environment."""


def _count(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise PredatorPreyError(f"predator-prey: {name} must be an integer >= {low}, "
                                f"not {value!r}")
    return int(value)


class PredatorPreyEnv(ParallelEnv):
    """IC3Net predator-prey (see the module docstring for the rules).

    Options (keyword): ``nagents`` (predators, default 3), ``dim`` (grid side, default 5),
    ``vision`` (default 0), ``max_steps`` (default 20), ``mode`` (``"mixed"``,
    ``"cooperative"``, ``"competitive"``), ``render_mode`` (None or ``"ansi"``).
    IC3Net's three settings: easy ``nagents=3, dim=5, vision=0, max_steps=20``; medium
    ``5, 10, 1, 40``; hard ``10, 20, 1, 80``.
    """

    metadata = {"name": "predator_prey_v2", "render_modes": list(_RENDER_MODES),
                "is_parallelizable": True}

    def __init__(self, *, nagents: int = 3, dim: int = 5, vision: int = 0,
                 max_steps: int = 20, mode: str = "mixed", render_mode: str | None = None):
        self.nagents = _count("nagents", nagents, 1)
        self.dim = _count("dim", dim, 2)
        self.vision = _count("vision", vision, 0)
        self.max_steps = _count("max_steps", max_steps, 1)
        if self.nagents + 1 > self.dim * self.dim:
            raise PredatorPreyError(f"predator-prey: {self.nagents} predators and a prey do "
                                    f"not fit on distinct cells of a {self.dim}x{self.dim} "
                                    f"grid")
        if mode not in MODES:
            raise PredatorPreyError(f"predator-prey: mode must be one of {', '.join(MODES)}, "
                                    f"not {mode!r}")
        self.mode = mode
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise PredatorPreyError(f"predator-prey: render_mode must be None or 'ansi', not "
                                    f"{render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"predator_{i}" for i in range(self.nagents)]
        self.agents: list[str] = []
        base = self.dim * self.dim
        self.vocab = base + 4
        self.outside_class = base + 1
        self.prey_class = base + 2
        self.predator_class = base + 3
        self.window = 2 * self.vision + 1
        self.obs_dim = self.window * self.window * self.vocab
        self._obs_space = spaces.Box(0.0, float(self.nagents),
                                     shape=(self.window, self.window, self.vocab),
                                     dtype=np.float32)
        self._act_space = spaces.Discrete(len(MOVES))
        self._empty = self._empty_grid()
        self._rng = np.random.default_rng()
        self.predator_loc = np.zeros((self.nagents, 2), dtype=np.int64)
        self.prey_loc = np.zeros(2, dtype=np.int64)
        self.reached = np.zeros(self.nagents, dtype=bool)
        self.t = 0
        self._over = True

    # ----- spaces (the same object every call, as PettingZoo asks) --------------------------

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent: str) -> spaces.Box:
        return self._obs_space

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    # ----- the game ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Place the predators and the prey on distinct random cells."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._act_space.seed(seed)      # one space object shared by every predator
        cells = self._rng.choice(self.dim * self.dim, self.nagents + 1, replace=False)
        rows, cols = np.divmod(cells, self.dim)
        locs = np.stack([rows, cols], axis=1).astype(np.int64)
        self.predator_loc = locs[:self.nagents].copy()
        self.prey_loc = locs[self.nagents].copy()
        self.reached = np.zeros(self.nagents, dtype=bool)
        self.t = 0
        self._over = False
        self.agents = list(self.possible_agents)
        obs = self.observations()
        infos = {a: self._info(i) for i, a in enumerate(self.agents)}
        return {a: obs[i] for i, a in enumerate(self.agents)}, infos

    def step(self, actions: dict):
        """Move every predator that has not reached the prey, then reward and check the end.

        ``actions`` maps each agent to an action 0..4; a missing agent stays, which is what
        an ignored action of a frozen predator does anyway.
        """
        if self._over:
            raise PredatorPreyError("predator-prey: step() after the episode ended; call "
                                    "reset() first")
        moves = np.full(self.nagents, 4, dtype=np.int64)
        for agent, act in actions.items():
            try:
                i = self.possible_agents.index(agent)
            except ValueError:
                raise PredatorPreyError(f"predator-prey: unknown agent {agent!r}") from None
            a = int(np.asarray(act).reshape(-1)[0]) if np.ndim(act) else int(act)
            if not 0 <= a < len(MOVES):
                raise PredatorPreyError(f"predator-prey: action {act!r} of {agent} is not "
                                        f"0..{len(MOVES) - 1}")
            moves[i] = a
        rewards = self.apply(moves)
        self.t += 1
        done = bool(self.reached.all())
        trunc = self.t >= self.max_steps and not done
        self._over = done or trunc
        obs = self.observations()
        agents = list(self.agents)
        out_obs = {a: obs[i] for i, a in enumerate(agents)}
        out_rew = {a: float(rewards[i]) for i, a in enumerate(agents)}
        out_term = {a: done for a in agents}
        out_trunc = {a: trunc for a in agents}
        infos = {a: self._info(i) for i, a in enumerate(agents)}
        if self._over:
            self.agents = []
        return out_obs, out_rew, out_term, out_trunc, infos

    def apply(self, moves: np.ndarray) -> np.ndarray:
        """Move the predators by action index (frozen ones stay), mark those on the prey as
        reached, and return the rewards of this step (one per predator)."""
        free = ~self.reached
        step = MOVES[np.asarray(moves, dtype=np.int64)]
        new = np.clip(self.predator_loc + step, 0, self.dim - 1)
        self.predator_loc[free] = new[free]
        on = np.all(self.predator_loc == self.prey_loc, axis=1)
        n_on = int(on.sum())
        rewards = np.full(self.nagents, TIMESTEP_PENALTY, dtype=np.float64)
        if self.mode == "mixed":
            rewards[on] = 0.0
        elif self.mode == "cooperative":
            rewards[on] = POS_PREY_REWARD * n_on
        elif n_on:
            rewards[on] = POS_PREY_REWARD / n_on
        self.reached |= on
        return rewards

    def observations(self) -> np.ndarray:
        """Every predator's window as one ``(nagents, 2v+1, 2v+1, vocab)`` float32 array."""
        grid = self._empty.copy()
        v = self.vision
        np.add.at(grid, (self.predator_loc[:, 0] + v, self.predator_loc[:, 1] + v,
                         self.predator_class), 1.0)
        grid[self.prey_loc[0] + v, self.prey_loc[1] + v, self.prey_class] += 1.0
        w = self.window
        out = np.empty((self.nagents, w, w, self.vocab), dtype=np.float32)
        for i, (r, c) in enumerate(self.predator_loc):
            out[i] = grid[r:r + w, c:c + w]
        return out

    @property
    def success(self) -> bool:
        """Every predator is on the prey (IC3Net's ``stat['success']``)."""
        return bool(self.reached.all())

    @property
    def caught(self) -> bool:
        """At least one predator has reached the prey."""
        return bool(self.reached.any())

    def render(self) -> str | None:
        """One text line per grid row: ``P`` prey, digits predators, ``*`` prey with
        predators on it, ``.`` empty."""
        if self.render_mode is None:
            return None
        cells = [["." for _ in range(self.dim)] for _ in range(self.dim)]
        for i, (r, c) in enumerate(self.predator_loc):
            cells[r][c] = str(i % 10) if cells[r][c] == "." else "+"
        r, c = self.prey_loc
        cells[r][c] = "*" if cells[r][c] != "." else "P"
        return "\n".join("".join(row) for row in cells)

    def close(self) -> None:
        pass

    # ----- helpers -------------------------------------------------------------------------

    def _info(self, i: int) -> dict[str, Any]:
        return {"on_prey": bool(self.reached[i]), "success": int(self.success),
                "caught": int(self.caught), "steps": self.t}

    def _empty_grid(self) -> np.ndarray:
        """The padded grid with only the cell indexes (and OUTSIDE beyond the border)."""
        v, d = self.vision, self.dim
        grid = np.zeros((d + 2 * v, d + 2 * v, self.vocab), dtype=np.float32)
        grid[:, :, self.outside_class] = 1.0
        rows, cols = np.divmod(np.arange(d * d), d)
        grid[rows + v, cols + v, self.outside_class] = 0.0
        grid[rows + v, cols + v, rows * d + cols] = 1.0
        return grid
