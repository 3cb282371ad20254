; Ball-and-beam balancing with the virtual update (Fig. 7): the cart-pole program.
.include "cartpole_vu.s"
