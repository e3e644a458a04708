package org.polyglotsandbox.internal.boundary;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The flat tape the Python tool wrapper builds structured answers from ({@link PlainData#tape}). */
class PlainDataTapeTest {
  @Test
  void tokensInOrder_withOnlyKeysAndDataAfterTheKinds() {
    List<Object> tape = PlainData.tape(
        "{\"a\":[1,2.5,\"x\",null,true,false,{}],\"big\":123456789012345678901234567890,\"e\":[]}", 256);
    assertThat(tape).containsExactly("{k[ifsntF{}]kBk[]}", "a", 1L, 2.5, "x", "big",
        "123456789012345678901234567890", "e");
  }

  @Test
  void aLongMinAndMax_stayLongs_andOneBeyondIsBig() {
    assertThat(PlainData.tape("[-9223372036854775808,9223372036854775807,9223372036854775808]", 256))
        .containsExactly("[iiB]", Long.MIN_VALUE, Long.MAX_VALUE, "9223372036854775808");
  }

  @Test
  void moreTokensThanTheCap_giveNull() {
    assertThat(PlainData.tape("[1,2,3]", 5)).containsExactly("[iii]", 1L, 2L, 3L);
    assertThat(PlainData.tape("[1,2,3,4]", 5)).isNull();
  }
}
