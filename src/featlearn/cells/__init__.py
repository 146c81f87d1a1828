"""Cells that compare a simulation with a theory: the escape runs and their exact linearisation
(docs/escape.md), the convention scans (docs/model.md) and the simulated referee of the DMFT
(docs/dmft.md).  They sit above the GD engine, the Hessian plateau and the theory, which they
combine."""
