/** The network server: Netty channels, request dispatch to the engine, scanners with leases. */
package io.basalt.server;
