package io.lakesink.storage.azure.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Injects one Azurite shared by every test class of the run: {@code @ExtendWith(AzuriteExtension.class)}
 * and an {@link Azurite} parameter on a test, {@code @BeforeAll} or constructor. Started on first
 * use, stopped when the run ends. Tests that stop or restart Azurite must start their own with
 * {@link Azurite#start()} instead.
 */
public final class AzuriteExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(AzuriteExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Azurite.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    // The root store lives for the whole run and closes AutoCloseable values at its end.
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(Azurite.class, key -> Azurite.start(), Azurite.class);
  }
}
