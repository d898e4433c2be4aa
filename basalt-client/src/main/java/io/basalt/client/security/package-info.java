/** Users, passwords (SCRAM-SHA-256) and permissions. */
package io.basalt.client.security;
