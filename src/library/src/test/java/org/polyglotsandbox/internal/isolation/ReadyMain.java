package org.polyglotsandbox.internal.isolation;

/** Prints {@code ready} as soon as its main runs: a worker's start-up time, measured from the host. */
public final class ReadyMain {
  private ReadyMain() {}

  public static void main(String[] args) {
    System.out.println("ready");
    System.out.flush();
  }
}
