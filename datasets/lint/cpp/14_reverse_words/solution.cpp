#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace std;

int main() {
    string line;
    while (getline(cin, line)) {
        istringstream in(line);
        vector<string> words;
        string w;
        while (in >> w) words.push_back(w);
        string result = "";
        for (int i = words.size() - 1; i >= 0; i--) {
            result += words[i];
            if (i != 0) result += " ";
        }
        cout << result << "\n";
    }
    return 0;
}
