"""Language-model providers behind one small interface (:class:`council.providers.base.Provider`)."""
