package org.polyglotsandbox.internal.spi;

import java.util.List;
import java.util.Map;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.internal.boundary.JsonSchema;

/**
 * What the engine room may ask of the API beyond its public methods: make the result values the API
 * does not let applications make, and read the parts of scripts and tools the API keeps to itself.
 * Implemented by the API package and handed to {@link SandboxCore#create}.
 */
public abstract class ApiAccess {
  protected ApiAccess() {}

  /** The result of one run. */
  public abstract ExecutionResult result(RunRecord record);

  /** A declared output file taken out of a run. */
  public abstract ExecutionResult.OutputFile outputFile(String guestPath, byte[] bytes);

  /** The script's compiled result schema, or null. */
  public abstract JsonSchema resultSchema(Script script);

  /** The script's declared output files: guest path to whether it is required. */
  public abstract Map<String, Boolean> outputFileDeclarations(Script script);

  /** The files the script hands to its run alone ({@code Script.withFile}), in the order given. */
  public abstract List<RunFile> runFiles(Script script);

  /**
   * The policy the script's run has: the sandbox's, or the sandbox's with the script's own limits
   * ({@code Script.withLimits}), the same object when the script has none.
   */
  public abstract Policy policyForRun(Script script, Policy policy);

  /** The tool's compiled parameter schema. */
  public abstract JsonSchema parameters(Tool tool);

  /** The tool's compiled result schema, or null. */
  public abstract JsonSchema resultSchema(Tool tool);
}
