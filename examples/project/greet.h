char *greet(const char *who);
