package org.polyglotsandbox.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A LangChain4j {@link ChatModel} that plays a script instead of calling a model: each turn either asks
 * for a tool call or answers, reading the last tool result it was sent. No network.
 */
final class ScriptedChatModel implements ChatModel {
  private final Deque<Function<ChatRequest, AiMessage>> turns = new ArrayDeque<>();
  /** Every request the framework sent, in order. */
  final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

  /** A model that first calls {@code tool} with {@code argumentsJson}, then answers with {@code answer} of the result text. */
  static ScriptedChatModel callingThenAnswering(String tool, String argumentsJson, Function<String, String> answer) {
    return callingThenAnswering(request -> ToolExecutionRequest.builder().id("call-1").name(tool)
        .arguments(argumentsJson).build(), answer);
  }

  /**
   * A model that first makes its tool call from the request it was sent (the tools it was offered, as a
   * real model sees them), then answers with {@code answer} of the result text.
   */
  static ScriptedChatModel callingThenAnswering(Function<ChatRequest, ToolExecutionRequest> call,
      Function<String, String> answer) {
    ScriptedChatModel m = new ScriptedChatModel();
    m.turns.add(request -> AiMessage.from(call.apply(request)));
    m.turns.add(request -> AiMessage.from(answer.apply(lastToolResult(request))));
    return m;
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    requests.add(request);
    Function<ChatRequest, AiMessage> turn = turns.poll();
    if (turn == null) {
      throw new IllegalStateException("the script has no more turns");
    }
    return ChatResponse.builder().aiMessage(turn.apply(request)).build();
  }

  static String lastToolResult(ChatRequest request) {
    List<ChatMessage> messages = request.messages();
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i) instanceof ToolExecutionResultMessage r) {
        return r.text();
      }
    }
    throw new AssertionError("no tool result in " + messages);
  }
}
