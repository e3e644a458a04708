/**
 * polyglot-sandbox: runs untrusted JavaScript and Python on GraalVM's Polyglot API, deny by default.
 *
 * <p>Only {@code org.polyglotsandbox} is exported. Everything under {@code internal} and the CLI are
 * implementation details.
 */
module org.polyglotsandbox {
  requires org.graalvm.polyglot;
  requires com.google.common.jimfs;
  requires com.fasterxml.jackson.databind;
  requires info.picocli;
  requires com.networknt.schema;
  requires java.management;
  requires jdk.management;
  requires jdk.jfr;

  exports org.polyglotsandbox;

  opens org.polyglotsandbox.cli to info.picocli;
}
