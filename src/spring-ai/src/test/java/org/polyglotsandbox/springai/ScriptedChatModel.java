package org.polyglotsandbox.springai;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A Spring AI {@link ChatModel} that plays a script instead of calling a model: first a tool call, then an
 * answer made from the last tool response it was sent. No network. Like Spring AI's own chat models, it
 * hands a response with tool calls to a {@link ToolCallingManager} (Spring AI's default one), which runs
 * the callbacks the prompt's options carry, and calls itself again with the conversation so far.
 */
final class ScriptedChatModel implements ChatModel {
  private final Deque<Function<Prompt, AssistantMessage>> turns = new ArrayDeque<>();
  private final ToolCallingManager toolCalling = ToolCallingManager.builder().build();
  /** Every prompt the framework sent, in order. */
  final List<Prompt> prompts = new CopyOnWriteArrayList<>();

  static ScriptedChatModel callingThenAnswering(String tool, String argumentsJson, Function<String, String> answer) {
    return callingThenAnswering(prompt -> new AssistantMessage.ToolCall("call-1", "function", tool, argumentsJson),
        answer);
  }

  /**
   * A model that first makes its tool call from the prompt it was sent (the tools it was offered, as a real
   * model sees them: {@link #offeredTools}), then answers with {@code answer} of the last tool response.
   */
  static ScriptedChatModel callingThenAnswering(Function<Prompt, AssistantMessage.ToolCall> call,
      Function<String, String> answer) {
    ScriptedChatModel m = new ScriptedChatModel();
    m.turns.add(prompt -> AssistantMessage.builder().content("").toolCalls(List.of(call.apply(prompt))).build());
    m.turns.add(prompt -> new AssistantMessage(answer.apply(lastToolResponse(prompt))));
    return m;
  }

  /** The definitions of the tools the prompt offers, as a tool-calling model sends them to its provider. */
  static List<ToolDefinition> offeredTools(Prompt prompt) {
    if (!(prompt.getOptions() instanceof ToolCallingChatOptions options)) {
      throw new AssertionError("the prompt's options carry no tools: " + prompt.getOptions());
    }
    return ToolCallingManager.builder().build().resolveToolDefinitions(options);
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    prompts.add(prompt);
    Function<Prompt, AssistantMessage> turn = turns.poll();
    if (turn == null) {
      throw new IllegalStateException("the script has no more turns");
    }
    ChatResponse response = new ChatResponse(List.of(new Generation(turn.apply(prompt))));
    if (!response.hasToolCalls()) {
      return response;
    }
    ToolExecutionResult executed = toolCalling.executeToolCalls(prompt, response);
    return call(new Prompt(executed.conversationHistory(), prompt.getOptions()));
  }

  /** Options that can carry tool callbacks, as a tool-calling model's do: ChatClient adds its tools to them. */
  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }

  static String lastToolResponse(Prompt prompt) {
    List<Message> messages = prompt.getInstructions();
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i) instanceof ToolResponseMessage r) {
        return r.getResponses().get(r.getResponses().size() - 1).responseData();
      }
    }
    throw new AssertionError("no tool response in " + messages);
  }
}
