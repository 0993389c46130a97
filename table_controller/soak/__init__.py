"""The whole stack on simulated hardware, for the end-to-end tests, the fault soak and the stack benchmark.

:mod:`table_controller.soak.stack` assembles one live table exactly as ``cardtable run`` does (the shoe
simulator on a pty opened by pyserial through the firmware bridge, the durable journal, the controller, the
FastAPI app served by uvicorn) and drives it as a card room would: the dealer enters every act over HTTP,
a WebSocket client watches the floor stream, and the simulated table camera, read by the vision pipeline,
cross-checks every shown card against what the shoe dealt. :mod:`table_controller.soak.checks` holds the
checks run afterwards on the data directory (journal verify, export, replay, conservation), and
:mod:`table_controller.soak.runner` the kill -9 fault soak behind ``cardtable soak``.
"""
