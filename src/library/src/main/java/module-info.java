/**
 * polyglot-sandbox: runs untrusted JavaScript and Python on GraalVM's Polyglot API, deny by default.
 *
 * <p>Only {@code org.polyglotsandbox} is exported; everything under {@code internal} is the engine room.
 * JSON Schema validation ({@code dev.harrel:json-schema}, no dependencies of its own) and JSON reading
 * and writing ({@code jackson-core}, streaming only) are implementation details: neither appears in the API.
 */
module org.polyglotsandbox {
  requires org.graalvm.polyglot;
  requires com.google.common.jimfs;
  requires com.fasterxml.jackson.core;
  requires json.schema;
  requires java.management;
  requires jdk.management;
  requires jdk.jfr;

  exports org.polyglotsandbox;

  // The API finds its engine room and the escape probe through these services, so that it imports
  // no class of either room.
  uses org.polyglotsandbox.internal.spi.SandboxCore.Factory;
  provides org.polyglotsandbox.internal.spi.SandboxCore.Factory
      with org.polyglotsandbox.internal.engine.EngineRoomProvider, org.polyglotsandbox.internal.worker.WorkerRooms;
  uses org.polyglotsandbox.internal.spi.WallProbeSuite;
  provides org.polyglotsandbox.internal.spi.WallProbeSuite with org.polyglotsandbox.internal.worker.WallProbeProvider;
  uses org.polyglotsandbox.internal.spi.ProbeSuite;
  provides org.polyglotsandbox.internal.spi.ProbeSuite with org.polyglotsandbox.internal.probe.ProbeSuiteProvider;
}
