package org.polyglotsandbox;

import java.util.List;
import java.util.Map;
import org.polyglotsandbox.internal.boundary.JsonSchema;
import org.polyglotsandbox.internal.spi.RunFile;
import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.RunRecord;

/** The API's side of {@link ApiAccess}: what only this package can make or read, for the engine room. */
final class ApiBridge extends ApiAccess {
  static final ApiBridge INSTANCE = new ApiBridge();

  private ApiBridge() {}

  @Override
  public ExecutionResult result(RunRecord record) {
    return new ExecutionResult(record);
  }

  @Override
  public ExecutionResult.OutputFile outputFile(String guestPath, byte[] bytes) {
    return new ExecutionResult.OutputFile(guestPath, bytes);
  }

  @Override
  public JsonSchema resultSchema(Script script) {
    return script.compiledResultSchema();
  }

  @Override
  public Map<String, Boolean> outputFileDeclarations(Script script) {
    return script.outputFileDeclarations();
  }

  @Override
  public List<RunFile> runFiles(Script script) {
    return script.runFiles();
  }

  @Override
  public Policy policyForRun(Script script, Policy policy) {
    return script.policyForRun(policy);
  }

  @Override
  public JsonSchema parameters(Tool tool) {
    return tool.compiledParameters();
  }

  @Override
  public JsonSchema resultSchema(Tool tool) {
    return tool.compiledResult();
  }
}
