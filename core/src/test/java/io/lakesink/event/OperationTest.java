package io.lakesink.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class OperationTest {
  @Test
  void eachDebeziumOpCodeReadsAsItsOperation() {
    assertEquals(Operation.CREATE, Operation.fromCode("c"));
    assertEquals(Operation.UPDATE, Operation.fromCode("u"));
    assertEquals(Operation.DELETE, Operation.fromCode("d"));
    assertEquals(Operation.READ, Operation.fromCode("r"));
    assertEquals(Operation.TRUNCATE, Operation.fromCode("t"));
    for (Operation op : Operation.values()) {
      assertEquals(op, Operation.fromCode(op.code()), "a code reads back as its operation");
    }
  }

  @Test
  void anythingElseIsNoOperation() {
    assertNull(Operation.fromCode(null));
    assertNull(Operation.fromCode(""));
    assertNull(Operation.fromCode("x"));
    assertNull(Operation.fromCode("C"), "codes are lower case");
    assertNull(Operation.fromCode("cc"), "one character, not a prefix");
    assertNull(Operation.fromCode("create"));
  }
}
