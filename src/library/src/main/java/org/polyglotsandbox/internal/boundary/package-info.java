/**
 * The output boundary: only plain data, within its caps, crosses between guest and host, and text from
 * the guest is made safe before anyone reads it.
 *
 * <p>Guest values are copied out ({@code ValueCopier}, which asks the guest the size of each string
 * before copying it) and host values written in ({@code PlainData}) as plain data only; results are
 * checked against a JSON Schema ({@code JsonSchema}); stdout and stderr share one byte budget
 * ({@code BoundedOutput}); output files are taken out of the run's memory ({@code OutputFileCollector})
 * and written below a host directory without following links ({@code HostWriter}); guest text is
 * sanitised for terminals, logs and language models ({@code TextSanitizer}, {@code ModelText}).
 *
 * <p>Depends on the API's value types, GraalVM's polyglot {@code Value}, jackson-core and the JSON
 * Schema validator, nothing else: the other layers (engine, file system, tools, limits, pool, audit) use
 * it, not the other way round. The classes the API itself uses ({@code PlainData}, {@code JsonSchema},
 * {@code TextSanitizer}, {@code HostWriter}, {@code ModelText}) depend on nothing of the API. Its only host file access
 * is {@code HostWriter}'s, into the directory the embedder named.
 */
package org.polyglotsandbox.internal.boundary;
