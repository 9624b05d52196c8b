/** JMH benchmarks: every workload runs against Varve and its peers in the same run. */
package io.varve.jmh;
