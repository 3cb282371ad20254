; Ball-and-beam balancing: four states like the cart-pole, so the same networks (actor 4-6-1,
; critic 5-6-1) and the same Fig. 2 program.
.include "cartpole.s"
