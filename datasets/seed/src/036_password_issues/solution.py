def password_issues(password, min_length=8):
    issues = []
    if len(password) < min_length:
        issues.append("too short")
    if not any(char.isdigit() for char in password):
        issues.append("no digit")
    if not any(char.isupper() for char in password):
        issues.append("no uppercase")
    if not any(char.islower() for char in password):
        issues.append("no lowercase")
    if all(char.isalnum() or char.isspace() for char in password):
        issues.append("no symbol")
    if any(char.isspace() for char in password):
        issues.append("contains whitespace")
    return issues
