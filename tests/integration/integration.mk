# Integration tests: real servers, forked clients, real sockets.
